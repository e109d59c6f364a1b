import { expect } from '@open-wc/testing';
import { boardLanguage, boardViews, DEFAULT_CARDS, parseBoardParams } from '../src/board/board-config.ts';

const SERVED = { prefix: '', hosts: ['a.example', 'b.example', 'c.example'] };
const parse = (query: string) => parseBoardParams(new URLSearchParams(query), SERVED);

describe('board URL parameters', () => {
  it('defaults to the first served host, the four cards, dark, medium, no rotation', () => {
    const { config, problems } = parse('');
    expect(config).to.deep.equal({
      sites: ['a.example'],
      cards: DEFAULT_CARDS,
      theme: 'dark',
      lang: undefined,
      size: 'm',
      hideNumbers: false,
      rotate: 0,
      title: '',
    });
    expect(problems).to.deep.equal([]);
  });

  it('reads lists comma-separated or repeated (as a form sends them), keeping only served sites', () => {
    const { config, problems } = parse('sites=b.example,evil.example&sites=c.example&cards=geo&cards=pages');
    expect(config.sites).to.deep.equal(['b.example', 'c.example']);
    expect(config.cards).to.deep.equal(['pages', 'geo']);
    expect(problems).to.deep.equal(['Site “evil.example” is not served here; left out.']);
  });

  it('names every value it ignores, and falls back to the default', () => {
    const { config, problems } = parse('theme=neon&size=xl&cards=chart&lang=not_a_tag!&rotate=5&mystery=1');
    expect(config).to.include({ theme: 'dark', size: 'm', rotate: 0, lang: undefined });
    expect(config.cards).to.deep.equal(DEFAULT_CARDS);
    expect(problems).to.have.length(6);
    expect(problems[0]).to.equal('Unknown setting “mystery” ignored.');
  });

  it('canonicalises the language tag and bounds the title', () => {
    const { config } = parse(`lang=de-ch&title=${'x'.repeat(200)}`);
    expect(config.lang).to.equal('de-CH');
    expect(config.title).to.have.length(80);
  });

  it('hide numbers keeps only the ranking, and says what it left out when cards were asked for', () => {
    expect(parse('numbers=hide').config.cards).to.deep.equal(['pages']);
    expect(parse('numbers=hide').problems).to.deep.equal([]);
    const { config, problems } = parse('numbers=hide&cards=pages,counter');
    expect(config).to.include({ hideNumbers: true });
    expect(config.cards).to.deep.equal(['pages']);
    expect(problems).to.deep.equal(['With numbers hidden, only ranks and titles show: counter left out.']);
  });

  it('rotates between the network and each site, only with several sites and within bounds', () => {
    const { config } = parse('sites=a.example,b.example&rotate=20');
    expect(config.rotate).to.equal(20);
    expect(boardViews(config)).to.deep.equal([['a.example', 'b.example'], ['a.example'], ['b.example']]);
    expect(parse('rotate=20').problems).to.deep.equal([
      'rotate needs several sites to rotate between; not rotating.',
    ]);
    expect(parse('sites=a.example,b.example&rotate=4000').config.rotate).to.equal(0);
    expect(boardViews(parse('sites=a.example,b.example').config)).to.deep.equal([['a.example', 'b.example']]);
  });

  it('speaks the language of its lang parameter: its words, plural forms and direction; English where there is no translation', () => {
    const params = new URLSearchParams('lang=pl&sites=a.example,x.example&rotate=5');
    const polish = boardLanguage(params);
    expect([polish.lang, polish.dir, polish.english, polish.terms.boardTitle]).to.deep.equal([
      'pl',
      'ltr',
      false,
      'Publiczność na żywo',
    ]);
    expect([2, 5, 22].map((count) => polish.terms.boardSites(polish.count(count)))).to.deep.equal([
      '2 witryny',
      '5 witryn',
      '22 witryny',
    ]);
    expect(parseBoardParams(params, SERVED, polish.terms).problems).to.deep.equal([
      'Witryna „x.example” nie jest tu obsługiwana; pominięto.',
      'rotate musi być liczbą sekund od 10 do 3600, a nie „5”; bez przełączania.',
    ]);
    const arabic = boardLanguage(new URLSearchParams('lang=ar-EG'));
    expect([arabic.lang, arabic.dir, arabic.terms.boardSites(arabic.count(2))]).to.deep.equal([
      'ar-EG',
      'rtl',
      'موقعان',
    ]);
    const untranslated = boardLanguage(new URLSearchParams('lang=sv'));
    expect([untranslated.lang, untranslated.english, untranslated.terms.boardTitle]).to.deep.equal([
      'sv',
      true,
      'Live audience',
    ]);
  });
});
