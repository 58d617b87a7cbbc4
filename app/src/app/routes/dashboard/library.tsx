// Not built yet: replaced by its screen.
import Placeholder from '@/app/routes/placeholder'

export default function Route() {
  return <Placeholder title="library" />
}
