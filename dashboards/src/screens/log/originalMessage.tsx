import FrameLogScreen from '../../features/messageLog/FrameLogScreen';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'originalMessage';

/** Original messages: every frame a vehicle's terminals sent or received, decoded and as hex. */
export default function OriginalMessageScreen() {
  return <FrameLogScreen entity={ENTITY} strings="original" />;
}
