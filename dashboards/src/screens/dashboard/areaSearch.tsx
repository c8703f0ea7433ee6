import AreaSearchPage from '../../features/fence/AreaSearchPage';

/** Area vehicle search (label point business type 4): features/fence/AreaSearchPage. */
export default function AreaSearch() {
  return <AreaSearchPage />;
}
