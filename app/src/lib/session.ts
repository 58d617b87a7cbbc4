// The session mirror: what the SDK's auth client says about the current user,
// kept in zustand so any component can read it. The SDK remains the source of
// truth; `startSessionMirror` follows its auth events.
//
// A session that still owes its second factor (GoTrue's assurance level:
// next aal2 above the current aal1, i.e. a verified MFA factor and a sign-in
// by password, link or provider only) is not a signed-in user: `user` stays
// null and `mfaPending` is true until the code is verified.
import { create } from 'zustand'
import type { Session, User } from '@supabase/supabase-js'
import { getSupabase } from '@/lib/supabase'
import { useNavMemory } from '@/lib/nav-memory'
import { logQuiet } from '@/lib/log'

interface SessionState {
  user: User | null
  session: Session | null
  /** The session exists but must still pass its second factor. */
  mfaPending: boolean
  loading: boolean
  set: (session: Session | null, mfaPending?: boolean) => void
}

export const useSessionStore = create<SessionState>((set) => ({
  user: null,
  session: null,
  mfaPending: false,
  loading: true,
  set: (session, mfaPending = false) =>
    set({
      session,
      user: session && !mfaPending ? session.user : null,
      mfaPending: !!session && mfaPending,
      loading: false,
    }),
}))

export function useSession() {
  const user = useSessionStore((s) => s.user)
  const session = useSessionStore((s) => s.session)
  const loading = useSessionStore((s) => s.loading)
  const mfaPending = useSessionStore((s) => s.mfaPending)
  return { user, session, loading, mfaPending }
}

/** Whether the current session must still pass its second factor (nextLevel aal2 above currentLevel). */
export async function secondFactorPending(): Promise<boolean> {
  const { data, error } = await getSupabase().auth.mfa.getAuthenticatorAssuranceLevel()
  if (error) throw error
  return data.nextLevel === 'aal2' && data.currentLevel !== 'aal2'
}

// Each mirroring of a session takes a turn; a slower, older answer is dropped.
let turns = 0

/**
 * Mirrors `session`. Without a verified factor on its user no second factor
 * can be owed (the auth client decides the same way), so it is mirrored at
 * once; otherwise once its assurance level is read, and until then the store
 * keeps what it had. On a failure to read the level, the session is held as
 * owing the factor: it signs in no further.
 */
function mirror(session: Session | null, defer: boolean): void {
  const turn = ++turns
  const { set } = useSessionStore.getState()
  if (!session || !(session.user.factors ?? []).some((f) => f.status === 'verified')) {
    set(session)
    return
  }
  const assess = () => {
    secondFactorPending()
      .then((pending) => {
        if (turn === turns) set(session, pending)
      })
      .catch((error: unknown) => {
        logQuiet('reading the assurance level', error)
        if (turn === turns) set(session, true)
      })
  }
  // The auth client holds its lock while it notifies, and the level is read
  // through it: read it after the notification.
  if (defer) setTimeout(assess, 0)
  else assess()
}

/**
 * Reads the current session and its assurance level into the store, and
 * answers whether a second factor is owed (after a sign-in, or a verified code).
 */
export async function refreshAssurance(): Promise<boolean> {
  const turn = ++turns
  const { data, error } = await getSupabase().auth.getSession()
  if (error) throw error
  const pending = data.session ? await secondFactorPending() : false
  if (turn === turns) useSessionStore.getState().set(data.session, pending)
  return pending
}

/** Starts following the SDK's auth state; returns the unsubscribe function. */
export function startSessionMirror(): () => void {
  const supabase = getSupabase()
  supabase.auth
    .getSession()
    .then(({ data }) => mirror(data.session, false))
    .catch((error: unknown) => {
      logQuiet('reading the session', error)
      mirror(null, false)
    })
  const { data } = supabase.auth.onAuthStateChange((event, session) => {
    if (event === 'SIGNED_OUT') useNavMemory.getState().clear()
    mirror(session, true)
  })
  return () => data.subscription.unsubscribe()
}

export async function signOut(): Promise<void> {
  useNavMemory.getState().clear()
  const { error } = await getSupabase().auth.signOut()
  if (error) throw error
}
