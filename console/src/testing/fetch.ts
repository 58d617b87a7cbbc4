import { vi } from 'vitest'

export type Reply = { status: number; body?: unknown }

/** Replaces fetch with one that answers each call with the next reply; returns the mock to inspect the calls. */
export function mockFetch(...replies: Reply[]) {
  const queue = [...replies]
  return vi.spyOn(globalThis, 'fetch').mockImplementation(async () => {
    const reply = queue.shift() ?? { status: 500, body: { error: 'no_reply', message: 'no more replies' } }
    const text = reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body)
    return new Response(reply.status === 204 ? null : text, { status: reply.status, headers: { 'content-type': 'application/json' } })
  })
}
