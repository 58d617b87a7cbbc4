import { useSession } from '@/lib/session'
import { AuthPage } from '@/features/auth/components/auth-page'
import { SecondFactorScreen } from '@/features/mfa/components/second-factor-screen'

/** /auth: the sign-in and sign-up forms, or the code screen while a session owes its second factor. */
export default function AuthRoute() {
  const { mfaPending } = useSession()
  return mfaPending ? <SecondFactorScreen /> : <AuthPage />
}
