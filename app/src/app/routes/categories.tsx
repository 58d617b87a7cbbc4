import { useEffect } from 'react'
import { EmptyState, LoadError, Spinner } from '@/components/ui/feedback'
import { Container } from '@/components/ui/layout'
import { toastError } from '@/lib/toast'
import { useCategories } from '@/features/categories/api/get-categories'
import { useCategoryCounts } from '@/features/categories/api/get-category-counts'
import { CategoryGrid } from '@/features/categories/components/category-grid'

export default function CategoriesRoute() {
  const categories = useCategories()
  const counts = useCategoryCounts()
  useEffect(() => {
    if (categories.isError) toastError('Failed to load categories')
  }, [categories.isError])
  return (
    <Container className="py-10">
      <h1 className="text-3xl font-bold tracking-tight text-slate-900">Categories</h1>
      <p className="mt-1 text-slate-600">Browse templates by what they help you do.</p>
      <div className="mt-8">
        {categories.isLoading ? (
          <Spinner label="Loading categories..." />
        ) : categories.isError && !categories.data ? (
          <LoadError title="We couldn't load the categories" />
        ) : !categories.data || categories.data.length === 0 ? (
          <EmptyState title="No categories yet" />
        ) : (
          <CategoryGrid categories={categories.data} counts={counts.data ?? {}} />
        )}
      </div>
    </Container>
  )
}
