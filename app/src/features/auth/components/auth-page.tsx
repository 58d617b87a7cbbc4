import { useEffect, useRef, useState, type FormEvent } from 'react'
import { Link, useNavigate, useSearchParams } from 'react-router'
import * as Tabs from '@radix-ui/react-tabs'
import { ArrowLeft, LayoutTemplate, MailCheck } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { FieldError, Input, Label } from '@/components/ui/field'
import { refreshAssurance, secondFactorPending, useSession } from '@/lib/session'
import { takeReturnPath } from '@/lib/nav-memory'
import { errorText, toastError, toastSuccess } from '@/lib/toast'
import { BRAND } from '@/config/constants'
import { useSignIn } from '../api/sign-in'
import { CONFIRMED_PATH, useSignUp } from '../api/sign-up'
import { RESET_PASSWORD_PATH } from '../api/request-password-reset'
import { useResendConfirmation } from '../api/resend-confirmation'
import { SOCIAL_PROVIDERS, useSignInWithProvider, type SocialProvider } from '../api/sign-in-with-provider'
import { useEnabledProviders } from '../api/get-enabled-providers'
import { validateAuth, type AuthErrors, type AuthValues } from '../validation'
import { EmailCodeForm } from './email-code-form'
import { ForgotPasswordForm } from './forgot-password-form'

type Mode = 'sign-in' | 'sign-up' | 'forgot'
const empty: AuthValues = { email: '', password: '', displayName: '' }

export function AuthPage() {
  const [params, setParams] = useSearchParams()
  const navigate = useNavigate()
  const { user, loading } = useSession()
  const asked = params.get('mode')
  const mode: Mode = asked === 'sign-up' || asked === 'forgot' ? asked : 'sign-in'
  const redirect = params.get('redirect')
  const [values, setValues] = useState<AuthValues>(empty)
  const [errors, setErrors] = useState<AuthErrors>({})
  // After a sign-up that needs its address confirmed: the address.
  const [confirming, setConfirming] = useState<string | null>(null)
  // A code from an e-mail is being proved: where to go next is decided here,
  // not by the signed-in redirect below.
  const handingOff = useRef(false)
  const signIn = useSignIn()
  const signUp = useSignUp()
  const social = useSignInWithProvider()
  const resend = useResendConfirmation()
  // Only the providers the server has enabled; none while loading or when
  // its settings cannot be read.
  const enabled = useEnabledProviders().data ?? []
  const providers = SOCIAL_PROVIDERS.filter((p) => enabled.includes(p.id))
  const busy = signIn.isPending || signUp.isPending || social.isPending

  // A signed-in user has nothing to do here.
  useEffect(() => {
    if (!loading && user && !signIn.isPending && !signUp.isPending && !handingOff.current) {
      navigate(takeReturnPath(redirect), { replace: true })
    }
  }, [loading, user, redirect, navigate, signIn.isPending, signUp.isPending])

  const setMode = (next: string) => {
    const copy = new URLSearchParams(params)
    copy.set('mode', next)
    setParams(copy, { replace: true })
    setErrors({})
    setConfirming(null)
  }

  const resendMail = async (email: string) => {
    try {
      await resend.mutateAsync(email)
      toastSuccess('E-mail sent', `We sent the confirmation link to ${email} again.`)
    } catch (error) {
      // Asked again too soon: the server's words.
      toastError(errorText(error, 'An unexpected error occurred'))
    }
  }

  const verifying = (on: boolean) => {
    handingOff.current = on
  }

  // The confirmation code: the address is confirmed and the account signed in; the page says so.
  const confirmed = () => {
    navigate(CONFIRMED_PATH, { replace: true })
  }

  // The reset code: signed in to set a new password, after the second factor if the account has one.
  const recovered = async () => {
    let pending = false
    try {
      pending = await secondFactorPending()
    } catch {
      pending = true
    }
    navigate(pending ? `/auth?mode=sign-in&redirect=${encodeURIComponent(RESET_PASSWORD_PATH)}` : RESET_PASSWORD_PATH, {
      replace: true,
    })
  }

  const change = (field: keyof AuthValues) => (e: React.ChangeEvent<HTMLInputElement>) => {
    setValues((v) => ({ ...v, [field]: e.target.value }))
    if (errors[field]) setErrors((er) => ({ ...er, [field]: undefined }))
  }

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    const found = validateAuth(values, mode === 'sign-up' ? 'sign-up' : 'sign-in')
    setErrors(found)
    if (Object.keys(found).length) return
    try {
      if (mode === 'sign-in') {
        await signIn.mutateAsync({ email: values.email.trim(), password: values.password })
        // A second factor is owed: the auth route asks for the code instead.
        if (await refreshAssurance()) return
        toastSuccess('Welcome back!', "You've been signed in successfully.")
        navigate(takeReturnPath(redirect), { replace: true })
      } else {
        const signedIn = await signUp.mutateAsync({
          email: values.email.trim(),
          password: values.password,
          displayName: values.displayName.trim(),
        })
        toastSuccess('Account created!', 'Please check your email to verify your account.')
        if (signedIn) navigate(takeReturnPath(redirect), { replace: true })
        else {
          setValues((v) => ({ ...v, password: '' }))
          setConfirming(values.email.trim())
        }
      }
    } catch (error) {
      toastError(errorText(error, 'An unexpected error occurred'))
    }
  }

  const withProvider = async (provider: SocialProvider) => {
    try {
      await social.mutateAsync(provider)
    } catch (error) {
      toastError(errorText(error, 'An unexpected error occurred'))
    }
  }

  const field = (name: keyof AuthValues, label: string, type: string, autoComplete: string) => {
    const id = `${mode}-${name}`
    return (
      <div>
        <Label htmlFor={id}>{label}</Label>
        <Input
          id={id}
          name={name}
          type={type}
          autoComplete={autoComplete}
          value={values[name]}
          onChange={change(name)}
          aria-invalid={errors[name] ? true : undefined}
          aria-describedby={errors[name] ? `${id}-error` : undefined}
          disabled={busy}
        />
        <FieldError id={`${id}-error`}>{errors[name]}</FieldError>
      </div>
    )
  }

  function forgotSearch() {
    const copy = new URLSearchParams(params)
    copy.set('mode', 'forgot')
    return `?${copy.toString()}`
  }

  const checkEmail = confirming && (
    <div className="space-y-5">
      <div role="status" className="rounded-xl border border-brand-200 bg-brand-50/60 p-4 text-sm text-slate-800">
        <p className="flex items-center gap-2 font-semibold text-slate-900">
          <MailCheck className="h-5 w-5 text-brand-600" aria-hidden /> Confirm your e-mail
        </p>
        <p className="mt-1">
          We sent a confirmation link to {confirming}. Follow it to finish, or enter the 6-digit code from the e-mail here.
        </p>
      </div>
      <EmailCodeForm email={confirming} type="signup" onVerifying={verifying} onVerified={confirmed} />
      <div className="flex flex-wrap justify-between gap-2">
        <Button variant="ghost" onClick={() => void resendMail(confirming)} disabled={resend.isPending}>
          {resend.isPending ? 'Sending...' : 'Send the e-mail again'}
        </Button>
        <Button variant="ghost" onClick={() => setMode('sign-in')}>
          Back to sign in
        </Button>
      </div>
    </div>
  )

  const form = (
    <form onSubmit={submit} noValidate className="space-y-4">
      {mode === 'sign-up' && field('displayName', 'Display name', 'text', 'name')}
      {field('email', 'Email', 'email', 'email')}
      {field('password', 'Password', 'password', mode === 'sign-in' ? 'current-password' : 'new-password')}
      {mode === 'sign-in' && (
        <p className="-mt-2 text-right text-sm">
          <Link
            to={{ search: forgotSearch() }}
            replace
            className="rounded font-medium text-brand-700 hover:text-brand-800 hover:underline"
          >
            Forgot password?
          </Link>
        </p>
      )}
      <Button type="submit" className="w-full" size="lg" disabled={busy}>
        {mode === 'sign-in'
          ? signIn.isPending
            ? 'Signing in...'
            : 'Sign In'
          : signUp.isPending
            ? 'Creating account...'
            : 'Create Account'}
      </Button>
    </form>
  )

  return (
    <div className="flex min-h-[calc(100vh-4rem)] items-center justify-center bg-gradient-to-b from-brand-50 to-slate-50 px-4 py-12">
      <div className="w-full max-w-md">
        <Link
          to="/"
          className="mb-6 inline-flex items-center gap-1.5 rounded text-sm font-medium text-slate-700 hover:text-brand-700"
        >
          <ArrowLeft className="h-4 w-4" aria-hidden /> Back to Home
        </Link>
        <div className="rounded-2xl border border-slate-200 bg-white p-6 shadow-sm sm:p-8">
          <div className="mb-6 text-center">
            <span className="mx-auto mb-3 flex h-12 w-12 items-center justify-center rounded-xl bg-brand-600 text-white">
              <LayoutTemplate className="h-6 w-6" aria-hidden />
            </span>
            <h1 className="text-2xl font-bold text-slate-900">
              {mode === 'sign-up' ? `Join ${BRAND}` : 'Welcome back'}
            </h1>
            <p className="mt-1 text-sm text-slate-600">
              Join the template marketplace to discover, share and sell workspace templates.
            </p>
          </div>
          {mode === 'forgot' ? (
            <ForgotPasswordForm
              initialEmail={values.email}
              onBack={() => setMode('sign-in')}
              onVerifying={verifying}
              onCodeVerified={recovered}
            />
          ) : (
            <Tabs.Root value={mode} onValueChange={setMode}>
              <Tabs.List aria-label="Sign in or sign up" className="mb-6 grid grid-cols-2 rounded-lg bg-slate-100 p-1">
                {(['sign-in', 'sign-up'] as const).map((m) => (
                  <Tabs.Trigger
                    key={m}
                    value={m}
                    className="rounded-md py-2 text-sm font-medium text-slate-700 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500 data-[state=active]:bg-white data-[state=active]:text-slate-900 data-[state=active]:shadow-sm"
                  >
                    {m === 'sign-in' ? 'Sign In' : 'Sign Up'}
                  </Tabs.Trigger>
                ))}
              </Tabs.List>
              <Tabs.Content value="sign-in">{mode === 'sign-in' && form}</Tabs.Content>
              <Tabs.Content value="sign-up">{mode === 'sign-up' && (checkEmail || form)}</Tabs.Content>
            </Tabs.Root>
          )}
          {mode !== 'forgot' && !confirming && providers.length > 0 && (
            <>
              <div className="my-6 flex items-center gap-3 text-xs uppercase tracking-wide text-slate-500">
                <span className="h-px flex-1 bg-slate-200" /> or continue with <span className="h-px flex-1 bg-slate-200" />
              </div>
              <div className={providers.length > 1 ? 'grid grid-cols-2 gap-3' : 'grid grid-cols-1 gap-3'}>
                {providers.map((p) => (
                  <Button key={p.id} variant="outline" onClick={() => void withProvider(p.id)} disabled={busy}>
                    {p.label}
                  </Button>
                ))}
              </div>
            </>
          )}
        </div>
      </div>
    </div>
  )
}
