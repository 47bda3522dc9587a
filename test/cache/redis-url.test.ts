import { describe, expect, it } from 'vitest';
import { parseRedisUrl, redisSecrets } from '../../src/cache/redis-url.ts';
import { readSettings } from '../../src/config/settings.ts';

describe('REDIS_URL forms', () => {
  it('one node: handed to ioredis as written', () => {
    expect(parseRedisUrl('rediss://app:pw@cache.example:6380/2')).toEqual({
      kind: 'node',
      url: 'rediss://app:pw@cache.example:6380/2',
    });
  });

  it('Sentinel: the sentinels, the master name, data-node and sentinel credentials, db, TLS', () => {
    expect(
      parseRedisUrl(
        'rediss+sentinel://app:p%40ss@s1.example:26379,s2.example:26379,[::1]:26380/cache-primary?sentinelPassword=sp&db=3',
      ),
    ).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 's1.example', port: 26379 },
        { host: 's2.example', port: 26379 },
        { host: '::1', port: 26380 },
      ],
      name: 'cache-primary',
      tls: true,
      username: 'app',
      password: 'p@ss',
      sentinelPassword: 'sp',
      db: 3,
    });
  });

  it('Cluster: seed nodes and credentials', () => {
    expect(parseRedisUrl('redis-cluster://:secret@10.0.0.1:7000,10.0.0.2:7001')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
      ],
      tls: false,
      password: 'secret',
    });
  });

  it('refuses what it cannot connect to, naming the forms, as a setting problem', () => {
    expect(() => parseRedisUrl('memcached://x:1')).toThrow(/redis\+sentinel:\/\//);
    expect(() => parseRedisUrl('redis+sentinel://s1:26379')).toThrow(/master/);
    expect(() => parseRedisUrl('redis-cluster://nohost')).toThrow(/host:port/);
    expect(() => readSettings({ REDIS_URL: 'redis+sentinel://s1:26379' })).toThrow(/master/);
  });

  it('hands the log redactor every password a URL holds, multi-host forms included', () => {
    expect(redisSecrets('redis://user:p%40ss@host:6379')).toEqual(['p@ss']);
    expect(redisSecrets('redis://host:6379')).toEqual([]);
    expect(redisSecrets(undefined)).toEqual([]);
    expect(redisSecrets('redis-cluster://:cl%2Fpw@10.0.0.1:7000,10.0.0.2:7001')).toEqual(['cl/pw']);
    expect(
      redisSecrets('redis+sentinel://app:data-pw@s1:26379,s2:26379/mymaster?sentinelPassword=sent-pw'),
    ).toEqual(['data-pw', 'sent-pw']);
  });
});
