/** The monitoring view (video grid left 60 %, trace map right 40 %): features/video. */
export { default } from '../../features/video/VideoMapPage';
