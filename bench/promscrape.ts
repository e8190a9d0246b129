// A scrape as Prometheus makes it, for the benches that time /metrics: its Accept header
// (scrape_protocols' default order) and gzip, by curl in a process of its own, so that neither the
// bench's event loop (which may run the simulated cluster) nor its parsing is in the figure.

import { spawn } from 'node:child_process';

export const PROMETHEUS_ACCEPT =
  'application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.4,*/*;q=0.1';

/** One scrape of `url`: milliseconds from the request to the last byte, the bytes as sent, whether gzipped. */
export function prometheusScrape(url: string): Promise<{ ms: number; bytes: number; gzip: boolean }> {
  return new Promise((resolve, reject) => {
    const c = spawn(
      'curl',
      [
        '-sS',
        '-o',
        '/dev/null',
        '-H',
        `Accept: ${PROMETHEUS_ACCEPT}`,
        '-H',
        'Accept-Encoding: gzip',
        '-w',
        '%{http_code} %{time_total} %{size_download} %header{content-encoding}',
        url,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    c.stdout.on('data', (b: Buffer) => (out += b.toString()));
    c.stderr.on('data', (b: Buffer) => (err += b.toString()));
    c.on('error', (e) => reject(new Error(`curl (Prometheus-like scrape): ${e.message}`)));
    c.on('exit', (code) => {
      const [status, seconds, bytes, encoding] = out.trim().split(' ');
      if (code !== 0 || status !== '200')
        reject(new Error(`curl (Prometheus-like scrape) exited ${code}, HTTP ${status}: ${err.trim()}`));
      else resolve({ ms: Math.round(Number(seconds) * 1000), bytes: Number(bytes), gzip: encoding === 'gzip' });
    });
  });
}
