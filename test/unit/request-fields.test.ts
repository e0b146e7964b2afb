// What a request's lines say of its inputs (shared/lambda/request-fields.ts), from events built as
// the local gateway builds them: the query as sent, never the cursor (its position instead), and
// nothing that looks like a key even when a client puts one where it does not belong.
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createCursorCodec } from '../../shared/domain/cursor.ts';
import { REDACTED, requestInputs } from '../../shared/lambda/request-fields.ts';
import { lambdaContext } from '../support/in-process.ts';

/** The event's query as API Gateway hands it to a proxy integration: every value, by name. */
const eventWith = (search: string, pathParameters: Record<string, string> | null = null): APIGatewayProxyEvent => {
  const all: Record<string, string[]> = {};
  for (const [name, value] of new URLSearchParams(search)) all[name] = [...(all[name] ?? []), value];
  return {
    multiValueQueryStringParameters: Object.keys(all).length ? all : null,
    pathParameters,
  } as unknown as APIGatewayProxyEvent;
};

const codec = createCursorCodec('s'.repeat(40));
const key = `pet_${'A1b2'.repeat(9)}`;

describe('a request’s inputs on its lines', () => {
  it('names the query as sent, a repeated parameter by its values in order', () => {
    const inputs = requestInputs(eventWith('status=sold&limit=5&limit=7'), lambdaContext('listPets'));
    expect(inputs).toMatchObject({
      query: { status: 'sold', limit: ['5', '7'] },
      queryShape: 'limit&status',
      cursorSent: false,
    });
    expect(inputs.cursorAfter).toBeUndefined();
  });

  it('says a cursor was sent and the position it resumes after, never the cursor', () => {
    const cursor = codec.encode({ after: 41, status: 'sold' });
    const inputs = requestInputs(eventWith(`status=sold&cursor=${cursor}`), lambdaContext('listPets'));
    expect(inputs).toMatchObject({ cursorSent: true, cursorAfter: 41, queryShape: 'cursor&status' });
    expect(JSON.stringify(inputs)).not.toContain(cursor);
    expect(JSON.stringify(inputs)).not.toContain(cursor.split('.')[0]);
  });

  it('a cursor that is none: sent, no position', () => {
    const inputs = requestInputs(eventWith('cursor=forged'), lambdaContext('listPets'));
    expect(inputs).toMatchObject({ cursorSent: true, queryShape: 'cursor' });
    expect(inputs.cursorAfter).toBeUndefined();
    expect(JSON.stringify(inputs)).not.toContain('forged');
  });

  it('writes a key pasted into a query or path parameter as redacted', () => {
    const inputs = requestInputs(eventWith(`api_key=${key}&limit=2`, { petId: key }), lambdaContext('getPet'));
    expect(inputs.query).toEqual({ api_key: REDACTED, limit: '2' });
    expect(inputs.pathParameters).toEqual({ petId: REDACTED });
    expect(JSON.stringify(inputs)).not.toContain(key);
  });

  it('names the version that answered', () => {
    expect(requestInputs(eventWith(''), { ...lambdaContext('getPet'), functionVersion: '17' })).toMatchObject({
      executedVersion: '17',
      cursorSent: false,
    });
  });
});
