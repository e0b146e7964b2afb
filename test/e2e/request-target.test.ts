// A request whose target is in absolute form (`GET http://host/v1/pets HTTP/1.1`) is served as its
// path: RFC 9112 §3.2.2 has every server accept that form (a client sends it to a proxy, and
// some send it to every server), and the contract says so. An outside run found it 404 on the
// local stage. Raw sockets: fetch always sends the origin form.
import { connect } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { LocalServer } from '../../tools/harness/local-server.ts';
import { createPet, disposeServer, startServer } from './support.ts';

let server: LocalServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => disposeServer(server));

/** Sends `request` on a new connection (closed after the answer); resolves to the answer's head and body. */
const raw = (request: string): Promise<{ status: number; head: string; body: string }> =>
  new Promise((resolve, reject) => {
    const { hostname, port } = new URL(server.baseUrl);
    const socket = connect(Number(port), hostname, () => socket.write(request));
    let answer = '';
    socket.on('data', (data) => (answer += String(data)));
    socket.on('error', reject);
    socket.on('end', () => {
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), head, body });
    });
  });

const get = (target: string, host = new URL(server.baseUrl).host) =>
  raw(`GET ${target} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${server.key}\r\nConnection: close\r\n\r\n`);

test('an absolute-form target is served as its path: a listing, a getPet and the reference', async () => {
  const animal = await createPet(server, { name: 'Absolute', categoryId: 3 });
  const { host, pathname } = new URL(server.baseUrl);

  const listing = await get(`http://${host}${pathname}/pets?limit=100`);
  expect(listing.status, listing.body).toBe(200);
  expect((JSON.parse(listing.body) as Array<{ id: number }>).map(({ id }) => id)).toContain(animal.id);

  const one = await get(`http://${host}${pathname}/pets/${animal.id}`);
  expect(one.status, one.body).toBe(200);
  expect(JSON.parse(one.body)).toEqual(animal);

  // The scheme and host are any case (RFC 3986 §3.1, §3.2.2).
  expect((await get(`HTTP://${host.toUpperCase()}${pathname}/pets?limit=1`)).status).toBe(200);
  expect((await get(`http://${host}/docs`)).status).toBe(200);
});

test('its path decides the route as the origin form’s does: an unknown path is still 404', async () => {
  const { host, pathname } = new URL(server.baseUrl);
  const unknown = await get(`http://${host}${pathname}/nope`);
  expect(unknown.status).toBe(404);
  expect(JSON.parse(unknown.body)).toMatchObject({ code: 'NOT_FOUND', status: 404 });
  // An authority and no path is the root, `/`.
  expect((await get(`http://${host}`)).status).toBe(404);
});
