// Remembered navigation (spec section 2, global behaviour): for signed-in
// users the last visited path plus query, kept for the browser session and
// cleared on sign-out.
import { create } from 'zustand'
import { createJSONStorage, persist } from 'zustand/middleware'

interface NavMemoryState {
  lastPath: string | null
  remember: (path: string) => void
  clear: () => void
}

export const useNavMemory = create<NavMemoryState>()(
  persist(
    (set) => ({
      lastPath: null,
      remember: (path) => set({ lastPath: path }),
      clear: () => set({ lastPath: null }),
    }),
    { name: 'marketplace.nav-memory', storage: createJSONStorage(() => sessionStorage) },
  ),
)

/** Paths that are never remembered as a place to return to. */
export function isRememberable(path: string): boolean {
  return !(path === '/auth' || path.startsWith('/auth?') || path.startsWith('/auth/'))
}

/**
 * Where to go after signing in: the remembered location unless it is /auth
 * (which is then cleared), otherwise the redirect target, default '/'.
 */
export function takeReturnPath(redirect: string | null): string {
  const { lastPath, clear } = useNavMemory.getState()
  if (lastPath && isRememberable(lastPath)) {
    clear()
    return lastPath
  }
  return safeRedirect(redirect)
}

/**
 * Only same-site paths are followed, else `fallback`. A backslash is refused
 * too: browsers read '/\\host' as '//host'.
 */
export function safeRedirect(redirect: string | null | undefined, fallback = '/'): string {
  if (!redirect || !redirect.startsWith('/') || redirect.startsWith('//') || redirect.includes('\\')) return fallback
  return redirect
}
