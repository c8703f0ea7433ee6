import FrameLogScreen from '../../features/messageLog/FrameLogScreen';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'upstreamMessage';

/** Upstream messages: what a vehicle's terminals sent, decoded and as hex. */
export default function UpstreamMessageScreen() {
  return <FrameLogScreen entity={ENTITY} strings="upstream" />;
}
