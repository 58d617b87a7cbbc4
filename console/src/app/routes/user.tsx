import { useParams } from 'react-router'
import { UserDetail } from '@/features/users/components/user-detail'

export default function UserRoute() {
  const { id = '' } = useParams()
  return <UserDetail key={id} id={id} />
}
