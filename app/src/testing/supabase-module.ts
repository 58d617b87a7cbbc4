// What `@/lib/supabase` is in tests: the current fake client.
import { FakeSupabase } from './fake-supabase'

let current = new FakeSupabase()

export function setFake(fake: FakeSupabase): FakeSupabase {
  current = fake
  return fake
}

export async function initSupabase() {
  return current.client
}

export function getSupabase() {
  return current.client
}
