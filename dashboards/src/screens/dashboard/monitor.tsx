/** Video monitoring (menu "视频监控"): the live video grid of features/video. */
export { default } from '../../features/video/VideoMonitorPage';
