// /upload (signed-in) and /dashboard/admin/upload (admins): the Upload screen.
import { UploadPage } from '@/features/upload/components/upload-page'

export default function UploadRoute() {
  return <UploadPage />
}
