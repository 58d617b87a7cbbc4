import { describe, expect, it } from 'vitest'
import type { LogEntry } from '../api/logs'
import { mergeEntries } from './log-tail'

const entry = (id: number): LogEntry => ({
  id,
  at: '2030-01-01T00:00:00Z',
  level: 'INFO',
  service: 'rest',
  message: `GET /rest/v1/x ${id}`,
  method: 'GET',
  path: '/rest/v1/x',
  status: 200,
  duration_ms: 1,
  request_id: null,
})

describe('the log tail', () => {
  it('shows seeded and streamed entries newest first, each once', () => {
    const merged = mergeEntries([entry(1), entry(2), entry(3)], [entry(3), entry(4)])
    expect(merged.map((e) => e.id)).toEqual([4, 3, 2, 1])
  })

  it('keeps only the newest', () => {
    expect(mergeEntries([entry(1), entry(2)], [entry(3)], 2).map((e) => e.id)).toEqual([3, 2])
  })
})
