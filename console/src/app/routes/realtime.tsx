import { RealtimePage } from '@/features/realtime/components/realtime-page'

export default function RealtimeRoute() {
  return <RealtimePage />
}
