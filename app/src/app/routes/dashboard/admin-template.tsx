import { ReviewPage } from '@/features/admin/components/review-page'

export default function AdminTemplateRoute() {
  return <ReviewPage />
}
