import FrameLogScreen from '../../features/messageLog/FrameLogScreen';

/** Original messages: every frame a vehicle's terminals sent or received, decoded and as hex. */
export default function OriginalMessageScreen() {
  return <FrameLogScreen entity="originalMessage" strings="original" />;
}
