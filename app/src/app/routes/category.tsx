import { useEffect } from 'react'
import { Link, useParams } from 'react-router'
import { ArrowLeft, FolderSearch } from 'lucide-react'
import { ButtonLink } from '@/components/ui/button'
import { EmptyState, Spinner } from '@/components/ui/feedback'
import { Container } from '@/components/ui/layout'
import { templateCount } from '@/lib/format'
import { toastError } from '@/lib/toast'
import { useCategory } from '@/features/categories/api/get-category'
import { useCategoryTemplates } from '@/features/templates/api/get-category-templates'
import { TemplateGrid, TemplateGridSkeleton } from '@/features/templates/components/template-card'

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
  const templates = useCategoryTemplates(category.data?.id)
  const failed = category.isError || templates.isError
  useEffect(() => {
    if (failed) toastError('Failed to load category and templates')
  }, [failed])

  if (category.isLoading) return <Spinner label="Loading category..." />
  if (!category.data) {
    return (
      <Container className="py-16">
        <EmptyState
          icon={<FolderSearch className="h-10 w-10" aria-hidden />}
          title="Category not found"
          description="The category you're looking for doesn't exist."
          action={<ButtonLink to="/categories" variant="outline">Back to Categories</ButtonLink>}
        />
      </Container>
    )
  }
  const list = templates.data ?? []
  return (
    <Container className="py-10">
      <BackToCategories />
      <h1 className="mt-4 text-3xl font-bold tracking-tight text-slate-900">{category.data.name}</h1>
      {category.data.description && <p className="mt-1 max-w-2xl text-slate-600">{category.data.description}</p>}
      {!templates.isLoading && <p className="mt-3 text-sm font-medium text-slate-700">{templateCount(list.length)} found</p>}
      <div className="mt-8">
        {templates.isLoading ? (
          <TemplateGridSkeleton />
        ) : list.length === 0 ? (
          <EmptyState title="No templates found in this category yet." />
        ) : (
          <TemplateGrid templates={list} />
        )}
      </div>
    </Container>
  )
}
