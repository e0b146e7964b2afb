import { describe, expect, test } from 'vitest';
import { matchRoute } from '../../infra/local/route-matcher.ts';
import { resourcePath, route, routes } from '../../shared/api/routes.ts';

const operationOf = (method: string, path: string) => matchRoute(method, path)?.route.operationId;

describe('matchRoute', () => {
  test('finds an operation by method and path, with its path parameters', () => {
    expect(operationOf('GET', '/v1/pets')).toBe('listPets');
    expect(operationOf('POST', '/v1/pets')).toBe('createPet');
    expect(matchRoute('GET', '/v1/pets/42')).toEqual({ route: route('getPet'), pathParameters: { petId: '42' } });
  });

  test('hands the path parameter over as written, for the function to validate', () => {
    expect(matchRoute('GET', '/v1/pets/007')?.pathParameters).toEqual({ petId: '007' });
    expect(matchRoute('GET', '/v1/pets/abc')?.pathParameters).toEqual({ petId: 'abc' });
    expect(matchRoute('GET', '/v1/pets/-1')?.pathParameters).toEqual({ petId: '-1' });
  });

  test('percent-decodes the parameter, and keeps a malformed escape as it is', () => {
    expect(matchRoute('GET', '/v1/pets/%31%32')?.pathParameters).toEqual({ petId: '12' });
    expect(matchRoute('GET', '/v1/pets/%E0%A4%A')?.pathParameters).toEqual({ petId: '%E0%A4%A' });
  });

  test.each([
    ['GET', '/pets'],
    ['GET', '/v2/pets'],
    ['GET', '/v1'],
    ['GET', '/v1/'],
    ['GET', '/v1/Pets'],
    ['GET', '/v1/pets/'],
    ['GET', '/v1/pets/1/2'],
    ['GET', '/v1/pets/1/'],
    ['GET', '/v1/petsx'],
    ['GET', '/staging/v1/pets'],
    ['POST', '/v1/pets/1'],
    ['PUT', '/v1/pets'],
    ['OPTIONS', '/v1/pets/1'],
    ['PATCH', '/v1/pets'],
    ['get', '/v1/pets'],
    ['GET', '/v1/store/orders'],
    ['GET', ''],
  ])('does not match %s %j', (method, path) => {
    expect(matchRoute(method, path)).toBeUndefined();
  });

  test('every route of the table matches its own resource path', () => {
    for (const r of routes) {
      const path = resourcePath(r).replace(/\{\w+\}/g, '1');
      expect(matchRoute(r.method, path)?.route).toBe(r);
    }
  });

  test('only getPet is deprecated, until 5 December 2030, in favour of the listing', () => {
    expect(routes.filter((r) => r.deprecation).map((r) => r.operationId)).toEqual(['getPet']);
    const deprecation = route('getPet').deprecation!;
    expect(deprecation.sunset.toISOString()).toBe('2030-12-05T00:00:00.000Z');
    expect(deprecation.successor).toBe('/pets');
  });
});
