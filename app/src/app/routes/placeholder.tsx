// Screens of later issues: reachable, guarded where the spec says, not built yet.
import { Construction } from 'lucide-react'
import { ButtonLink } from '@/components/ui/button'
import { Container } from '@/components/ui/layout'

export default function PlaceholderRoute({ title }: { title: string }) {
  return (
    <Container className="py-20">
      <div className="mx-auto max-w-lg rounded-2xl border border-slate-200 bg-white p-10 text-center">
        <Construction className="mx-auto h-10 w-10 text-brand-500" aria-hidden />
        <h1 className="mt-4 text-2xl font-bold text-slate-900">{title}</h1>
        <p className="mt-2 text-slate-600">This part of the marketplace is coming soon.</p>
        <ButtonLink to="/discover" variant="outline" className="mt-6">
          Browse templates
        </ButtonLink>
      </div>
    </Container>
  )
}
