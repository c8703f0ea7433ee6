/** Video playback (menu "视频回放"): the terminal's recordings, features/video. */
export { default } from '../../features/video/PlaybackPage';
