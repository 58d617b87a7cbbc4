import { useParams } from 'react-router'
import { TemplateDetailPage } from '@/features/templates/components/template-detail-page'

export default function TemplateRoute() {
  const { id = '' } = useParams()
  return <TemplateDetailPage key={id} id={id} />
}
