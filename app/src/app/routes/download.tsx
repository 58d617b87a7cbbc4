// /download/{orderId}: a signed-in buyer's order (the route requires sign-in).
import { OrderDownloadPage } from '@/features/orders/components/order-download-page'

export default function DownloadRoute() {
  return <OrderDownloadPage />
}
