import { Link } from 'react-router'
import { PageHeader } from '@/components/ui/page'

export default function NotFound() {
  return (
    <>
      <PageHeader title="Not found" description="The console has no such page." />
      <Link to="/users" className="text-sm font-medium text-brand-700 underline">
        Go to Users
      </Link>
    </>
  )
}
