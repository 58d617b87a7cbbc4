import { useEffect } from 'react'
import { DiscoverPage } from '@/features/templates/components/discover-page'
import { useCategories } from '@/features/categories/api/get-categories'
import { toastError } from '@/lib/toast'

export default function DiscoverRoute() {
  const categories = useCategories()
  useEffect(() => {
    if (categories.isError) toastError('Failed to load categories')
  }, [categories.isError])
  return (
    <DiscoverPage
      categories={categories.data ?? []}
      categoriesLoading={categories.isLoading}
      categoriesFailed={categories.isError && !categories.data}
    />
  )
}
