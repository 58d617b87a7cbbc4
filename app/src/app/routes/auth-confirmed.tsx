import { EmailConfirmedPage } from '@/features/auth/components/email-confirmed-page'

/** /auth/confirmed: where the sign-up confirmation link lands. */
export default function AuthConfirmedRoute() {
  return <EmailConfirmedPage />
}
