import { Link } from 'react-router'
import { Briefcase, GraduationCap, HeartPulse, PiggyBank, Sparkles, User } from 'lucide-react'
import { ButtonLink } from '@/components/ui/button'
import { SectionHeading } from '@/components/ui/layout'
import { HOME_CATEGORY_TILES } from '@/config/constants'

const look: Record<string, { icon: typeof Sparkles; tone: string }> = {
  productivity: { icon: Sparkles, tone: 'bg-indigo-50 text-indigo-700' },
  business: { icon: Briefcase, tone: 'bg-sky-50 text-sky-700' },
  personal: { icon: User, tone: 'bg-rose-50 text-rose-700' },
  education: { icon: GraduationCap, tone: 'bg-amber-50 text-amber-800' },
  finance: { icon: PiggyBank, tone: 'bg-emerald-50 text-emerald-700' },
  'health-fitness': { icon: HeartPulse, tone: 'bg-orange-50 text-orange-700' },
}

export function categoryLook(slug: string) {
  return look[slug] ?? { icon: Sparkles, tone: 'bg-slate-100 text-slate-700' }
}

export function CategoryTiles() {
  return (
    <section aria-labelledby="explore-categories">
      <SectionHeading
        id="explore-categories"
        title="Explore Categories"
        action={
          <ButtonLink to="/categories" variant="outline">
            See All
          </ButtonLink>
        }
      />
      <ul className="grid grid-cols-2 gap-4 sm:grid-cols-3 lg:grid-cols-6">
        {HOME_CATEGORY_TILES.map((c) => {
          const { icon: Icon, tone } = categoryLook(c.slug)
          return (
            <li key={c.slug}>
              <Link
                to={`/category/${c.slug}`}
                className="flex flex-col items-center gap-3 whitespace-nowrap rounded-2xl border border-slate-200 bg-white px-3 py-5 text-center text-sm font-medium text-slate-800 sm:p-5 sm:text-base shadow-sm transition hover:-translate-y-0.5 hover:shadow-md focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500"
              >
                <span className={`flex h-12 w-12 items-center justify-center rounded-xl ${tone}`}>
                  <Icon className="h-6 w-6" aria-hidden />
                </span>
                {c.name}
              </Link>
            </li>
          )
        })}
      </ul>
    </section>
  )
}
