import ExceptionPage from './ExceptionPage';

export default function Exception500() {
  return <ExceptionPage status="500" />;
}
