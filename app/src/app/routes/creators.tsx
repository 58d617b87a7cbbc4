import { CreatorsPage } from '@/features/creators/components/creators-page'

export default function CreatorsRoute() {
  return <CreatorsPage />
}
