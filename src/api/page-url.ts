/**
 * Page links from the `path` field, which the service writes as `/x`, `host/x` or
 * `http://host/x`. Only http: and https: URLs are ever produced: anything else is no link.
 */
export function pageUrl(path: string, host: string, linkBase?: string): URL | undefined {
  let url: URL;
  try {
    if (/^[a-z][a-z0-9+.-]*:/i.test(path)) url = new URL(path);
    else if (path.startsWith('//')) return undefined;
    else if (path.startsWith('/')) url = new URL(path, linkBase ?? `https://${host}`);
    else {
      const slash = path.indexOf('/');
      const pathHost = slash === -1 ? path : path.slice(0, slash);
      if (!/^[A-Za-z0-9.-]+(?::\d+)?$/.test(pathHost)) return undefined;
      url = new URL(slash === -1 ? '/' : path.slice(slash), linkBase ?? `https://${pathHost}`);
    }
  } catch {
    return undefined;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
}
