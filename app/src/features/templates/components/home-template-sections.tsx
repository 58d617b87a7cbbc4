import { Flame } from 'lucide-react'
import { ButtonLink } from '@/components/ui/button'
import { EmptyState, LoadError, Spinner } from '@/components/ui/feedback'
import { SectionHeading } from '@/components/ui/layout'
import { useTrendingTemplates } from '../api/get-trending-templates'
import { useLatestTemplates } from '../api/get-latest-templates'
import { TemplateCard, TemplateGrid } from './template-card'

export function TrendingTemplates() {
  const { data, isLoading, isError } = useTrendingTemplates()
  return (
    <section aria-labelledby="trending-heading">
      <div className="mb-6 flex items-center gap-2">
        <Flame className="h-6 w-6 text-orange-500" aria-hidden />
        <h2 id="trending-heading" className="text-2xl font-bold tracking-tight text-slate-900">
          Trending Templates
        </h2>
      </div>
      {isLoading ? (
        <Spinner label="Loading templates..." />
      ) : isError && !data ? (
        <LoadError compact title="We couldn't load the trending templates" />
      ) : !data || data.length === 0 ? (
        <EmptyState title="No trending templates yet" />
      ) : (
        <ul className="grid gap-6 md:grid-cols-3">
          {data.map((t, i) => (
            <li key={t.id}>
              <TemplateCard template={t} rank={i + 1} />
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

export function LatestTemplates() {
  const { data, isLoading, isError } = useLatestTemplates()
  return (
    <section aria-labelledby="latest-heading">
      <SectionHeading
        id="latest-heading"
        title="Latest Templates"
        subtitle="Fresh from the creator community."
        action={
          <ButtonLink to="/discover" variant="outline">
            View All
          </ButtonLink>
        }
      />
      {isLoading ? (
        <Spinner label="Loading templates..." />
      ) : isError && !data ? (
        <LoadError compact title="We couldn't load the latest templates" />
      ) : !data || data.length === 0 ? (
        <EmptyState title="No templates available yet. Check back soon!" />
      ) : (
        <TemplateGrid templates={data} />
      )}
    </section>
  )
}
