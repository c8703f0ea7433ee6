import AnalysisPage from '../../features/dashboard/AnalysisPage';

/** The fleet's running charts (issue 10 §3; route /dashboard/analysis, api/routemap.py). */
export default function AnalysisScreen() {
  return <AnalysisPage />;
}
