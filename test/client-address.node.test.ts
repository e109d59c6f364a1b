/**
 * Which address is the reader (client-address.ts), as a table: Express's `trust proxy` rule over
 * X-Forwarded-For and RFC 7239 Forwarded, spoofing included; then the per-IP limit counting it
 * on both the hit path and the Web handler, over real HTTP.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { clientAddress, parseTrustProxy, type ForwardingHeaders } from '../src/server/http/client-address.ts';
import { ConfigError } from '../src/runtime/config-error.ts';
import { resolveOptions } from '../src/server/config/options.ts';
import { readSettings } from '../src/server/config/settings.ts';
import { rawRequest, startHarness } from './helpers/cache-harness.node.ts';

const XFF = (value: string): ForwardingHeaders => ({ xForwardedFor: value });
const FWD = (value: string): ForwardingHeaders => ({ forwarded: value });
const NONE: ForwardingHeaders = {};

/** [what, peer, headers, PULSE_TRUST_PROXY, the address counted] */
const CASES: [string, string | undefined, ForwardingHeaders, string, string | undefined][] = [
  // No proxy trusted: the peer, exactly as the socket gave it, whatever the headers say.
  ['nothing trusted: the peer', '203.0.113.9', XFF('198.51.100.1'), '0', '203.0.113.9'],
  [
    'nothing trusted: the peer as given, mapped form kept',
    '::ffff:127.0.0.1',
    XFF('198.51.100.1'),
    '0',
    '::ffff:127.0.0.1',
  ],
  ['nothing trusted, no peer: none', undefined, XFF('198.51.100.1'), '0', undefined],
  // A hop count.
  ['1 hop: the address the proxy appended', '127.0.0.1', XFF('198.51.100.1'), '1', '198.51.100.1'],
  ['1 hop, no header: the proxy itself', '127.0.0.1', NONE, '1', '127.0.0.1'],
  [
    "1 hop, spoofed entries left of the proxy's are never read",
    '127.0.0.1',
    XFF('6.6.6.6, 7.7.7.7, 198.51.100.1'),
    '1',
    '198.51.100.1',
  ],
  [
    "2 hops: the second proxy's entry",
    '10.0.0.2',
    XFF('6.6.6.6, 198.51.100.1, 10.0.0.1'),
    '2',
    '198.51.100.1',
  ],
  ['3 hops but a chain of 1: the leftmost', '127.0.0.1', XFF('198.51.100.1'), '3', '198.51.100.1'],
  // A list of proxies.
  ['loopback proxy: the appended address', '127.0.0.1', XFF('198.51.100.1'), 'loopback', '198.51.100.1'],
  [
    'loopback proxy on a mapped socket address',
    '::ffff:127.0.0.1',
    XFF('198.51.100.1'),
    'loopback',
    '198.51.100.1',
  ],
  ['IPv6 loopback proxy', '::1', XFF('2001:db8::7'), 'loopback', '2001:db8::7'],
  [
    'untrusted peer: its header is ignored (a spoof sent straight to the server)',
    '203.0.113.9',
    XFF('198.51.100.1'),
    '10.0.0.0/8, loopback',
    '203.0.113.9',
  ],
  [
    'a chain of trusted proxies, then the reader',
    '10.1.2.3',
    XFF('6.6.6.6, 198.51.100.1, 10.0.0.5'),
    '10.0.0.0/8',
    '198.51.100.1',
  ],
  [
    'a trusted-looking entry left of the reader is never reached',
    '10.1.2.3',
    XFF('10.9.9.9, 198.51.100.1'),
    '10.0.0.0/8',
    '198.51.100.1',
  ],
  ['every hop trusted: the leftmost', '10.1.2.3', XFF('10.0.0.1, 10.0.0.2'), '10.0.0.0/8', '10.0.0.1'],
  [
    'a single trusted address, not its neighbours',
    '192.0.2.11',
    XFF('198.51.100.1'),
    '192.0.2.10',
    '192.0.2.11',
  ],
  ['IPv6 range', '2001:db8:ffff::1', XFF('2001:db8::7'), '2001:db8:ffff::/48', '2001:db8::7'],
  [
    'IPv6 range not matching',
    '2001:db8:fffe::1',
    XFF('2001:db8::7'),
    '2001:db8:ffff::/48',
    '2001:db8:fffe::1',
  ],
  ['IPv4-mapped range', '172.16.0.9', XFF('198.51.100.1'), '::ffff:172.16.0.0/108', '198.51.100.1'],
  // How entries are written.
  ['ports and brackets dropped', '127.0.0.1', XFF('[2001:DB8:0:0:0:0:0:7]:4711'), '1', '2001:db8::7'],
  ['IPv4 with a port', '127.0.0.1', XFF('198.51.100.1:5123'), '1', '198.51.100.1'],
  [
    'IPv6 written long and short is one reader',
    '127.0.0.1',
    XFF('2001:0db8:0000:0000:0001:0000:0000:0001'),
    '1',
    '2001:db8::1:0:0:1',
  ],
  ['a mapped IPv4 entry is the IPv4 reader', '127.0.0.1', XFF('::ffff:198.51.100.1'), '1', '198.51.100.1'],
  [
    'garbage where the reader should be: the proxy that wrote it',
    '127.0.0.1',
    XFF('not-an-address'),
    '1',
    '127.0.0.1',
  ],
  ['"unknown": the proxy that wrote it', '127.0.0.1', XFF('unknown'), 'loopback', '127.0.0.1'],
  ['octal-looking IPv4 is not an address', '127.0.0.1', XFF('010.0.0.1'), '1', '127.0.0.1'],
  // RFC 7239 Forwarded, read when X-Forwarded-For is absent.
  [
    'Forwarded: for= of the last element',
    '127.0.0.1',
    FWD('for=6.6.6.6, for=192.0.2.60;proto=http;by=203.0.113.43'),
    '1',
    '192.0.2.60',
  ],
  [
    'Forwarded: quoted IPv6 with a port',
    '127.0.0.1',
    FWD('for="[2001:db8:cafe::17]:4711"'),
    'loopback',
    '2001:db8:cafe::17',
  ],
  [
    'Forwarded: a quoted comma does not split elements',
    '127.0.0.1',
    FWD('for=192.0.2.60;by="a,b", for=198.51.100.2'),
    '2',
    '192.0.2.60',
  ],
  [
    'Forwarded: an element without for= is an unknown hop',
    '127.0.0.1',
    FWD('for=192.0.2.60, proto=https'),
    '2',
    '127.0.0.1',
  ],
  ['Forwarded: an obfuscated node ends the walk', '127.0.0.1', FWD('for=_hidden'), '1', '127.0.0.1'],
  [
    'Forwarded is ignored when X-Forwarded-For is there',
    '127.0.0.1',
    { xForwardedFor: '198.51.100.1', forwarded: 'for=6.6.6.6' },
    '1',
    '198.51.100.1',
  ],
  [
    'Forwarded from an untrusted peer is ignored',
    '203.0.113.9',
    FWD('for=198.51.100.1'),
    'loopback',
    '203.0.113.9',
  ],
];

describe('clientAddress: the reader behind trusted proxies', () => {
  for (const [what, peer, headers, trust, expected] of CASES) {
    test(`${what} (trust ${trust})`, () => {
      assert.equal(clientAddress(peer, headers, parseTrustProxy(trust)), expected);
    });
  }

  test('a client through one trusted proxy cannot choose its counted address, whatever it sends', () => {
    const trust = parseTrustProxy('loopback');
    // The proxy appends the address it saw (198.51.100.1) to whatever the client sent.
    for (const sent of ['127.0.0.1', '10.0.0.1, 127.0.0.1', 'unknown', '::1', '1.2.3.4, ::1', '']) {
      const header = sent === '' ? '198.51.100.1' : `${sent}, 198.51.100.1`;
      assert.equal(
        clientAddress('127.0.0.1', XFF(header), trust),
        '198.51.100.1',
        `sent ${JSON.stringify(sent)}`,
      );
      assert.equal(
        clientAddress('127.0.0.1', FWD(`for=${JSON.stringify(sent)}, for=198.51.100.1`), trust),
        '198.51.100.1',
      );
    }
  });
});

describe('PULSE_TRUST_PROXY', () => {
  const accepted: [string, unknown][] = [
    ['0', { hops: 0 }],
    ['2', { hops: 2 }],
    ['', { hops: 0 }],
    ['127.0.0.1', { ranges: [{ family: 4, network: 0x7f000001n, bits: 32 }] }],
    ['10.1.2.3/8', { ranges: [{ family: 4, network: 0x0a000000n, bits: 8 }] }],
    ['::/0', { ranges: [{ family: 6, network: 0n, bits: 0 }] }],
  ];
  for (const [value, compiled] of accepted) {
    test(`${JSON.stringify(value)} is accepted`, () => assert.deepEqual(parseTrustProxy(value), compiled));
  }
  for (const refused of [
    '101',
    '-1',
    'yes',
    '10.0.0.0/33',
    '::1/129',
    '10.0.0.256',
    '10.0.0.0/8/8',
    'fe80::/10, 1.2.3',
    '::ffff:10.0.0.0/8',
  ]) {
    test(`${JSON.stringify(refused)} is refused`, () => assert.throws(() => parseTrustProxy(refused)));
  }

  test('read from the environment and the flag, a bad value named in one line', () => {
    const result = readSettings(['serve', '--trust-proxy', 'loopback, 10.0.0.0/8'], {
      PULSE_TRUST_PROXY: '1',
    });
    assert.ok('settings' in result);
    assert.equal(result.settings.trustProxy, 'loopback, 10.0.0.0/8');
    const env = readSettings(['serve'], { PULSE_TRUST_PROXY: '2' });
    assert.ok('settings' in env && env.settings.trustProxy === '2');
    assert.deepEqual(readSettings(['serve'], { PULSE_TRUST_PROXY: '10.0.0.0/40' }), {
      errors: [
        'PULSE_TRUST_PROXY (--trust-proxy): "10.0.0.0/40" has a prefix length that does not fit the address',
      ],
    });
  });

  test('createCacheHandler refuses a bad trustProxy with a ConfigError', () => {
    assert.throws(
      () =>
        resolveOptions({
          upstream: 'http://127.0.0.1:1',
          apiKey: 'k',
          hosts: ['example.com'],
          trustProxy: ['10.0.0.0/8', 'proxy.internal'],
        }),
      ConfigError,
    );
    assert.deepEqual(
      resolveOptions({ upstream: 'http://127.0.0.1:1', apiKey: 'k', hosts: ['example.com'], trustProxy: 1 })
        .trustProxy,
      { hops: 1 },
    );
  });
});

describe('the per-IP limit counts the reader a trusted proxy names', () => {
  const TOPPAGES = '/live/toppages/v3/?host=example.com';

  test('behind a loopback proxy: each forwarded reader has its own limit, on the hit path and the Web handler', async () => {
    const h = await startHarness({ clientLimit: 2, trustProxy: 'loopback' });
    after(() => h.close());
    const as = (reader: string) => rawRequest(h.url, TOPPAGES, { headers: { 'x-forwarded-for': reader } });
    // The first answer is a miss (Web handler), the next ones hits (hit path): one count for both.
    assert.deepEqual(
      [
        (await as('198.51.100.1')).status,
        (await as('198.51.100.1')).status,
        (await as('198.51.100.1')).status,
      ],
      [200, 200, 429],
    );
    assert.deepEqual([(await as('198.51.100.2')).status, (await as('198.51.100.2')).status], [200, 200]);
    // Written another way, one reader is still one count.
    assert.equal((await as('::ffff:198.51.100.2')).status, 429);
    assert.equal(
      h.cache.clientAddress(
        new Request('http://x/', {
          headers: { 'x-pulse-client-ip': '127.0.0.1', 'x-forwarded-for': '6.6.6.6, 2001:db8::1' },
        }),
      ),
      '2001:db8::1',
    );
  });

  test('from a peer that is not trusted, X-Forwarded-For and Forwarded are ignored', async () => {
    const h = await startHarness({ clientLimit: 2, trustProxy: '10.0.0.0/8' });
    after(() => h.close());
    const statuses: number[] = [];
    for (const [index, headers] of (
      [
        { 'x-forwarded-for': '198.51.100.1' },
        { forwarded: 'for=198.51.100.2' },
        { 'x-forwarded-for': '198.51.100.3' },
      ] as Record<string, string>[]
    ).entries()) {
      statuses.push((await rawRequest(h.url, `${TOPPAGES}&limit=${index + 1}`, { headers })).status);
    }
    assert.deepEqual(statuses, [200, 200, 429], 'three spoofed readers were one client: 127.0.0.1');
  });
});
