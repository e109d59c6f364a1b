import { expect } from '@open-wc/testing';
import { canonicalQuery, pageUrl, parseQuery, routes } from '../src/api/index.ts';

describe('the contract in the browser', () => {
  it('parses and canonicalises a query', () => {
    const result = parseQuery('toppages', new URLSearchParams('sort_by=new&host=Example.com'));
    expect(result.success).to.equal(true);
    if (result.success)
      expect(canonicalQuery(result.params)).to.equal('host=example.com&limit=10&sort_by=new');
  });

  it('validates a response with the route schema', () => {
    const ok = routes.referrers.response.safeParse({ referrers: { 'google.com': 3.5, '': 2 } });
    const dropped = routes.referrers.response.safeParse({ referrers: { 'google.com': '3', 't.co': 1 } });
    const bad = routes.referrers.response.safeParse({ referrers: [] });
    expect(ok.success).to.equal(true);
    expect(dropped.success && dropped.data).to.deep.equal({ referrers: { 't.co': 1 } });
    expect(bad.success).to.equal(false);
  });

  it('links only to http(s) pages', () => {
    expect(pageUrl('example.com/a?b=1', 'example.com')?.href).to.equal('https://example.com/a?b=1');
    expect(pageUrl('javascript:alert(1)', 'example.com')).to.equal(undefined);
  });
});
