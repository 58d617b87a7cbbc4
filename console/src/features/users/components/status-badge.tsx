import { Badge } from '@/components/ui/badge'

export function StatusBadge({ status }: { status: string }) {
  const tone = status === 'active' ? 'success' : status === 'banned' ? 'danger' : status === 'unconfirmed' ? 'warning' : 'neutral'
  return <Badge tone={tone}>{status}</Badge>
}
