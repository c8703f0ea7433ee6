/** Route target `dashboard/trace` (/dashboard/trace): the track replay. */
export { default } from '../../features/replay/ReplayPage';
