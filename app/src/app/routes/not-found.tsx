import { Compass } from 'lucide-react'
import { ButtonLink } from '@/components/ui/button'

export default function NotFoundRoute() {
  return (
    <div className="flex min-h-[60vh] flex-col items-center justify-center px-4 text-center">
      <Compass className="h-12 w-12 text-brand-500" aria-hidden />
      <p className="mt-4 text-6xl font-extrabold text-slate-900">404</p>
      <h1 className="mt-2 text-xl font-semibold text-slate-800">Oops! Page not found</h1>
      <ButtonLink to="/" className="mt-6">
        Return to Home
      </ButtonLink>
    </div>
  )
}
