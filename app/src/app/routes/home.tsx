import { ArrowRight, Upload } from 'lucide-react'
import { ButtonLink } from '@/components/ui/button'
import { Container } from '@/components/ui/layout'
import { HeroSearch } from '@/features/templates/components/hero-search'
import { MarketplaceStats } from '@/features/templates/components/marketplace-stats'
import { LatestTemplates, TrendingTemplates } from '@/features/templates/components/home-template-sections'
import { TopCreators } from '@/features/creators/components/top-creators'
import { CategoryTiles } from '@/features/categories/components/category-tiles'
import { NewsletterForm } from '@/features/newsletter/components/newsletter-form'

export default function HomeRoute() {
  return (
    <>
      <section className="relative overflow-hidden bg-gradient-to-b from-brand-50 via-white to-slate-50">
        <Container className="py-16 text-center sm:py-24">
          <p className="mx-auto inline-flex rounded-full bg-white px-3 py-1 text-sm font-medium text-brand-700 ring-1 ring-brand-200">
            Templates made by real creators
          </p>
          <h1 className="mx-auto mt-5 max-w-3xl text-4xl font-extrabold tracking-tight text-slate-900 sm:text-5xl">
            Find the perfect template for your workspace
          </h1>
          <p className="mx-auto mt-4 max-w-2xl text-lg text-slate-700">
            Planners, CRMs, study hubs and habit trackers — ready to duplicate, free or premium.
          </p>
          <div className="mt-8 flex flex-wrap justify-center gap-3">
            <ButtonLink to="/discover" size="lg">
              Explore Templates <ArrowRight className="h-4 w-4" aria-hidden />
            </ButtonLink>
            <ButtonLink to="/upload" size="lg" variant="outline">
              <Upload className="h-4 w-4" aria-hidden /> Upload Template
            </ButtonLink>
          </div>
          <div className="mt-10">
            <HeroSearch />
          </div>
        </Container>
      </section>
      <Container className="space-y-16 py-12">
        <MarketplaceStats />
        <TrendingTemplates />
        <section className="flex flex-col items-start justify-between gap-6 rounded-3xl bg-slate-900 px-8 py-10 text-white sm:flex-row sm:items-center">
          <div>
            <h2 className="text-2xl font-bold">Start Creating Today</h2>
            <p className="mt-1 text-slate-300">Share your system with thousands of people — free or for a price you set.</p>
          </div>
          <ButtonLink to="/upload" size="lg" variant="outline">
            Upload a Template
          </ButtonLink>
        </section>
        <LatestTemplates />
        <TopCreators />
        <CategoryTiles />
        <NewsletterForm />
      </Container>
    </>
  )
}
