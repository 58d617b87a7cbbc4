import { SqlEditor } from '@/features/sql/components/sql-editor'

export default function SqlRoute() {
  return <SqlEditor />
}
