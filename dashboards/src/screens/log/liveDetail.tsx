import LiveSessionDetail from '../../features/liveLog/LiveSessionDetail';

/** A live session's detail (`?id=`), opened from the live log (platform-spec §2 logs: live, with detail). */
export default function LiveLogDetailPage() {
  return <LiveSessionDetail />;
}
