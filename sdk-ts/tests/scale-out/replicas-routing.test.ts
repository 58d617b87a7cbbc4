// The routing of deploy/nginx/plinth-replicas.conf, as scripts/scale-out
// fills it in: node A is the read-write upstream, node B stands in for a
// read node (both on the same database here: this checks where nginx sends
// each request, not replication). Which node served a request is read from
// the nodes' own /metrics.
import { afterAll, describe, expect, it } from 'vitest'
import { anonKey, closeClients, nginxReplicas, nodeA, nodeB, requestCount, userClient } from './nodes'

afterAll(closeClients)

async function counts(labels: { service?: string; method?: string }): Promise<[number, number]> {
  return [await requestCount(nodeA, labels), await requestCount(nodeB, labels)]
}

describe('nginx routing reads to read nodes', () => {
  it('sends GET and HEAD under /rest/v1/ to the read upstream', async () => {
    const client = userClient(nginxReplicas)
    const gets = await counts({ service: 'rest', method: 'GET' })
    for (let i = 0; i < 4; i++) {
      const { data, error } = await client.from('categories').select('id, slug').order('slug').limit(3)
      expect(error).toBeNull()
      expect(data).toHaveLength(3)
    }
    const afterGets = await counts({ service: 'rest', method: 'GET' })
    expect(afterGets[0] - gets[0]).toBe(0)
    expect(afterGets[1] - gets[1]).toBe(4)

    const heads = await counts({ service: 'rest', method: 'HEAD' })
    const head = await client.from('categories').select('*', { count: 'exact', head: true })
    expect(head.error).toBeNull()
    expect(head.count).toBeGreaterThan(0)
    const afterHead = await counts({ service: 'rest', method: 'HEAD' })
    expect(afterHead[0] - heads[0]).toBe(0)
    expect(afterHead[1] - heads[1]).toBe(1)
  })

  it('sends other /rest/v1/ methods (RPC by POST) to the read-write upstream', async () => {
    const client = userClient(nginxReplicas)
    const posts = await counts({ service: 'rest', method: 'POST' })
    const { error } = await client.rpc('get_trending_creators', { limit_count: 2 })
    expect(error).toBeNull()
    const afterPost = await counts({ service: 'rest', method: 'POST' })
    expect(afterPost[0] - posts[0]).toBe(1)
    expect(afterPost[1] - posts[1]).toBe(0)
  })

  it('sends GETs outside /rest/v1/ (auth) to the read-write upstream', async () => {
    const before = await counts({ service: 'auth', method: 'GET' })
    const response = await fetch(`${nginxReplicas}/auth/v1/settings`, { headers: { apikey: anonKey } })
    expect(response.status).toBe(200)
    const after = await counts({ service: 'auth', method: 'GET' })
    expect(after[0] - before[0]).toBe(1)
    expect(after[1] - before[1]).toBe(0)
  })
})
