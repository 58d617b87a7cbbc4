import { TablesBrowser } from '@/features/tables/components/tables-browser'

export default function TablesRoute() {
  return <TablesBrowser />
}
