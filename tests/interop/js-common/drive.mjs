// What the JS SDK drivers share (tests/interop/js/drive_agent.mjs on `@a2a-js/sdk` 1.3.0,
// tests/interop/js03/drive_agent.mjs on 0.3.14): the checks and their output, the webhook,
// and the client the SDK's `ClientFactory` makes from the card. It imports nothing from the
// SDK, since each driver resolves its own version from its own node_modules: each passes
// its `ClientFactory` and `ClientFactoryOptions` in.

import http from 'node:http';

export const BINDINGS = { jsonrpc: 'JSONRPC', rest: 'HTTP+JSON' };
export const GREETING = 'Hello from TCK';

export class CheckFailed extends Error {}

export function check(condition, message) {
  if (!condition) throw new CheckFailed(message);
}

export function ok(line) {
  console.log(`ok: ${line}`);
}

/** A webhook on 127.0.0.1 recording each POST's JSON body and headers. */
export async function webhook() {
  const hits = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      hits.push({ body: JSON.parse(body || 'null'), headers: req.headers });
      res.writeHead(200);
      res.end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { hits, server, url: `http://127.0.0.1:${server.address().port}/hook` };
}

/**
 * The SDK's client for the agent whose card is at `baseUrl`, preferring `binding`
 * (`jsonrpc` or `rest`); `A2A_API_KEY`, when set, rides on every request as `X-API-Key`.
 */
export async function connect(baseUrl, binding, { ClientFactory, ClientFactoryOptions }) {
  const key = process.env.A2A_API_KEY ?? '';
  if (key) {
    const plainFetch = globalThis.fetch;
    globalThis.fetch = (input, init = {}) => {
      const headers = new Headers(init.headers ?? {});
      headers.set('X-API-Key', key);
      return plainFetch(input, { ...init, headers });
    };
  }
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      preferredTransports: [BINDINGS[binding]],
    }),
  );
  return factory.createFromUrl(baseUrl);
}

/**
 * Runs `run(BASE_URL, BINDING)` from the command line: exits 0 when every check passes, 1
 * (after a `FAILED:` line) on the first failure, 2 on bad usage.
 */
export async function main(run) {
  const [baseUrl, binding] = process.argv.slice(2);
  if (!baseUrl || !(binding in BINDINGS)) {
    console.error('usage: node drive_agent.mjs BASE_URL {jsonrpc|rest}');
    process.exit(2);
  }
  try {
    await run(baseUrl, binding);
    process.exit(0);
  } catch (error) {
    console.log(error instanceof CheckFailed ? `FAILED: ${error.message}` : `FAILED: ${error?.stack ?? error}`);
    process.exit(1);
  }
}
