// /upload (signed-in) and /dashboard/admin/upload (admins): the Upload screen,
// with the categories its Category field offers.
import { useCategories } from '@/features/categories/api/get-categories'
import { UploadPage } from '@/features/upload/components/upload-page'

export default function UploadRoute() {
  const categories = useCategories()
  return <UploadPage categories={categories} />
}
