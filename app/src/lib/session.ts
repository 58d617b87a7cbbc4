// The session mirror: what the SDK's auth client says about the current user,
// kept in zustand so any component can read it. The SDK remains the source of
// truth; `startSessionMirror` follows its auth events.
import { create } from 'zustand'
import type { Session, User } from '@supabase/supabase-js'
import { getSupabase } from '@/lib/supabase'
import { useNavMemory } from '@/lib/nav-memory'
import { logQuiet } from '@/lib/log'

interface SessionState {
  user: User | null
  session: Session | null
  loading: boolean
  set: (session: Session | null) => void
}

export const useSessionStore = create<SessionState>((set) => ({
  user: null,
  session: null,
  loading: true,
  set: (session) => set({ session, user: session?.user ?? null, loading: false }),
}))

export function useSession() {
  const user = useSessionStore((s) => s.user)
  const session = useSessionStore((s) => s.session)
  const loading = useSessionStore((s) => s.loading)
  return { user, session, loading }
}

/** Starts following the SDK's auth state; returns the unsubscribe function. */
export function startSessionMirror(): () => void {
  const supabase = getSupabase()
  const { set } = useSessionStore.getState()
  supabase.auth
    .getSession()
    .then(({ data }) => set(data.session))
    .catch((error: unknown) => {
      logQuiet('reading the session', error)
      set(null)
    })
  const { data } = supabase.auth.onAuthStateChange((event, session) => {
    if (event === 'SIGNED_OUT') useNavMemory.getState().clear()
    set(session)
  })
  return () => data.subscription.unsubscribe()
}

export async function signOut(): Promise<void> {
  useNavMemory.getState().clear()
  const { error } = await getSupabase().auth.signOut()
  if (error) throw error
}
