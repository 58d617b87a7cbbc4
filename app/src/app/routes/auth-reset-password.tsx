import { ResetPasswordPage } from '@/features/auth/components/reset-password-page'

/** /auth/reset-password: where the password-reset link lands; sets a new password. */
export default function AuthResetPasswordRoute() {
  return <ResetPasswordPage />
}
