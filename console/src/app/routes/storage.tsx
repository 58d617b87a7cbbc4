import { StoragePage } from '@/features/storage/components/storage-page'

export default function StorageRoute() {
  return <StoragePage />
}
