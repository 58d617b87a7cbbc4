import { useEffect } from 'react'
import { Link, useParams } from 'react-router'
import { ArrowLeft, FolderSearch } from 'lucide-react'
import { ButtonLink } from '@/components/ui/button'
import { EmptyState, LoadError, StillLoading } from '@/components/ui/feedback'
import { PageSpinner } from '@/components/ui/page-spinner'
import { Container } from '@/components/ui/layout'
import { Pager } from '@/components/ui/pager'
import { templateCount } from '@/lib/format'
import { PAGE_SIZE, usePageParam } from '@/lib/paging'
import { usePageTitle } from '@/lib/page-title'
import { toastError } from '@/lib/toast'
import { useCategory } from '@/features/categories/api/get-category'
import { useCategoryTemplates } from '@/features/templates/api/get-category-templates'
import { FIRST_ROW, TemplateGrid, TemplateGridSkeleton } from '@/features/templates/components/template-card'

function BackToCategories() {
  return (
    <Link to="/categories" className="inline-flex items-center gap-1.5 rounded text-sm font-medium text-slate-700 hover:text-brand-700">
      <ArrowLeft className="h-4 w-4" aria-hidden /> Back to Categories
    </Link>
  )
}

export default function CategoryRoute() {
  const { slug = '' } = useParams()
  const category = useCategory(slug)
  const page = usePageParam()
  const templates = useCategoryTemplates(category.data?.id, page)
  const failed = category.isError || templates.isError
  usePageTitle(
    category.data ? `${category.data.name} templates` : category.isLoading || category.isError ? undefined : 'Category Not Found',
  )
  useEffect(() => {
    if (failed) toastError('Failed to load category and templates')
  }, [failed])

  if (category.isLoading) return <PageSpinner label="Loading category..." />
  // Not read (the server out of reach) is not "not found" (issue 24).
  if (category.isError && !category.data) {
    return (
      <Container className="py-16">
        <LoadError />
      </Container>
    )
  }
  if (!category.data) {
    return (
      <Container className="py-16">
        <EmptyState
          icon={<FolderSearch className="h-10 w-10" aria-hidden />}
          title="Category not found"
          titleAs="h1"
          description="The category you're looking for doesn't exist."
          action={<ButtonLink to="/categories" variant="outline">Back to Categories</ButtonLink>}
        />
      </Container>
    )
  }
  const list = templates.data?.items ?? []
  const total = templates.data?.total ?? 0
  const templatesUnread = templates.isError && !templates.data
  return (
    <Container className="py-10">
      <BackToCategories />
      <h1 className="mt-4 text-3xl font-bold tracking-tight text-slate-900">{category.data.name}</h1>
      {category.data.description && <p className="mt-1 max-w-2xl text-slate-600">{category.data.description}</p>}
      {!templates.isLoading && !templatesUnread && <p className="mt-3 text-sm font-medium text-slate-700">{templateCount(total)} found</p>}
      <div className="mt-8">
        {/* The list's heading, for the page's outline: the cards' titles are h3 (axe heading-order). */}
        <h2 className="sr-only">Templates</h2>
        {templates.isLoading ? (
          <>
            <StillLoading />
            <TemplateGridSkeleton />
          </>
        ) : templatesUnread ? (
          <LoadError title="We couldn't load the templates of this category" />
        ) : total === 0 ? (
          <EmptyState title="No templates found in this category yet." />
        ) : (
          <>
            {list.length === 0 ? (
              <EmptyState title="No templates on this page" description="This page is past the last one." />
            ) : (
              <TemplateGrid templates={list} eager={FIRST_ROW} />
            )}
            <Pager page={page} total={total} size={PAGE_SIZE} label="Templates" />
          </>
        )}
      </div>
    </Container>
  )
}
