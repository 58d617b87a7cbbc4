import { useNavigate, useSearchParams } from 'react-router'
import { Database } from 'lucide-react'
import { SignInForm } from '@/features/auth/components/sign-in-form'

/** Where to go after signing in: a path of the console, never another site. */
export function safeRedirect(value: string | null): string {
  return value && value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/sign-in') ? value : '/users'
}

export default function SignInRoute() {
  const [params] = useSearchParams()
  const navigate = useNavigate()
  return (
    <main id="main" className="flex min-h-screen items-center justify-center px-4 py-10">
      <div className="w-full max-w-sm rounded-2xl border border-slate-200 bg-white p-6 shadow-sm">
        <div className="mb-5 flex items-center gap-2">
          <span className="flex h-9 w-9 items-center justify-center rounded-lg bg-brand-600 text-white">
            <Database className="h-5 w-5" aria-hidden />
          </span>
          <h1 className="text-xl font-bold tracking-tight">Sign in to the Plinth console</h1>
        </div>
        <SignInForm onSignedIn={() => navigate(safeRedirect(params.get('redirect')), { replace: true })} />
        <p className="mt-4 text-xs text-slate-600">
          Operators are made on the server: <code className="rounded bg-slate-100 px-1">plinth admin operator &lt;email&gt;</code>
        </p>
      </div>
    </main>
  )
}
