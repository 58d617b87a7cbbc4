import { LogsPage } from '@/features/logs/components/logs-page'

export default function LogsRoute() {
  return <LogsPage />
}
