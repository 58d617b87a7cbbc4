import { PoliciesPage } from '@/features/policies/components/policies-page'

export default function PoliciesRoute() {
  return <PoliciesPage />
}
