import AnalysisPage from '../../features/dashboard/AnalysisPage';

/** The fleet's running charts (route /dashboard/analysis, api/routemap.py). */
export default function AnalysisScreen() {
  return <AnalysisPage />;
}
