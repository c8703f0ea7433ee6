import { Alert } from 'antd';
import { useState, type CSSProperties } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * A stored video file (uploaded media, evidence), not a live stream. A file the browser cannot decode
 * says so (console-spec §8 "video file player": 该视频格式暂无法播放，当前播放器支持MP4格式) instead of a black box.
 */
export function VideoFile({ src, testId, autoPlay = false, style }: { src: string; testId: string; autoPlay?: boolean; style?: CSSProperties }) {
  const { t } = useTranslation('media');
  const [failed, setFailed] = useState(false);
  if (failed) return <Alert type="warning" showIcon title={t('videoFormat')} data-testid={`${testId}-unplayable`} />;
  return <video src={src} controls autoPlay={autoPlay} data-testid={testId} style={style} onError={() => setFailed(true)} />;
}
