import { describe, expect, test } from 'vitest';
import { MAX_ID } from '../../shared/api/schemas.ts';
import { createIdAllocator, type ReserveBlock } from '../../shared/domain/id-allocator.ts';

/** A counter like the DynamoDB one: ADD size, return the new value. Records each reservation. */
const counter = (start = 0) => {
  let value = start;
  const reservations: number[] = [];
  const reserve: ReserveBlock = async (size) => {
    await new Promise((resolve) => setImmediate(resolve)); // answers later, as DynamoDB does
    value += size;
    reservations.push(value);
    return value;
  };
  return { reserve, reservations };
};

const distinct = (ids: number[]) => new Set(ids).size === ids.length;

describe('id allocator', () => {
  test('hands out a block in order, then reserves the next one', async () => {
    const { reserve, reservations } = counter();
    const ids = createIdAllocator(reserve, 3);
    const got = [];
    for (let i = 0; i < 7; i++) got.push(await ids.next());
    expect(got).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(reservations).toEqual([3, 6, 9]);
  });

  test('starts from the block the counter returns, whatever was handed out before', async () => {
    const { reserve } = counter(500);
    const ids = createIdAllocator(reserve, 100);
    expect(await ids.next()).toBe(501);
  });

  test('two allocators on one counter (two containers) never share an id', async () => {
    const { reserve } = counter();
    const a = createIdAllocator(reserve, 10);
    const b = createIdAllocator(reserve, 10);
    const got = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).next()));
    expect(distinct(got)).toBe(true);
  });

  test('many concurrent callers share one reservation and get distinct ids', async () => {
    const { reserve, reservations } = counter();
    const ids = createIdAllocator(reserve, 100);
    const got = await Promise.all(Array.from({ length: 100 }, () => ids.next()));
    expect(reservations).toHaveLength(1);
    expect(got.sort((x, y) => x - y)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
  });

  test('concurrent callers beyond one block reserve only the blocks they need', async () => {
    const { reserve, reservations } = counter();
    const ids = createIdAllocator(reserve, 100);
    const got = await Promise.all(Array.from({ length: 250 }, () => ids.next()));
    expect(reservations).toEqual([100, 200, 300]);
    expect(distinct(got)).toBe(true);
    expect(Math.max(...got)).toBe(250);
  });

  test('a failed reservation fails every caller waiting on it, and the next call retries', async () => {
    let calls = 0;
    const reserve: ReserveBlock = async (size) => {
      calls++;
      await new Promise((resolve) => setImmediate(resolve));
      if (calls === 1) throw new Error('DynamoDB is down');
      return 10 * size;
    };
    const ids = createIdAllocator(reserve, 10);
    const first = await Promise.allSettled(Array.from({ length: 5 }, () => ids.next()));
    expect(first.map((r) => r.status)).toEqual(Array(5).fill('rejected'));
    expect(first.map((r) => (r as PromiseRejectedResult).reason.message)).toEqual(Array(5).fill('DynamoDB is down'));
    expect(calls).toBe(1);

    expect(await ids.next()).toBe(91);
    expect(calls).toBe(2);
  });

  test('hands out ids up to 2^53−1, then refuses: the id space is exhausted', async () => {
    const { reserve } = counter(MAX_ID - 2);
    const ids = createIdAllocator(reserve, 2);
    // The counter's value after ADD 2 is exactly MAX_ID: the block's ids are safe.
    expect([await ids.next(), await ids.next()]).toEqual([MAX_ID - 1, MAX_ID]);
    await expect(ids.next()).rejects.toThrow('the animal id space is exhausted');
    // It stays refused; it never wraps or hands out an unsafe id.
    await expect(ids.next()).rejects.toThrow('the animal id space is exhausted');
  });

  test('refuses a block whose last id is beyond 2^53−1', async () => {
    const ids = createIdAllocator(async () => MAX_ID + 2, 100);
    await expect(ids.next()).rejects.toThrow('exhausted');
  });
});
